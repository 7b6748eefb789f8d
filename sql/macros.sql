-- Unit conversions written once (the tables keep base units; see DESIGN §3): every model and
-- check sees these as functions (temporary macros of the build's connection,
-- pipeline/warehouse/models.py load_macros). A factor lives here and nowhere else in sql/.
create or replace temp macro bytes_to_bits(x) as x * 8;
create or replace temp macro bits_to_bytes(x) as x / 8;
create or replace temp macro ms_to_s(x) as x / 1000;
create or replace temp macro us_to_s(x) as x / 1e6;
create or replace temp macro mbit_to_bits(x) as x * 1000000;
create or replace temp macro gbit_to_bits(x) as x * 1e9;
create or replace temp macro bits_to_mbit(x) as x / 1e6;
