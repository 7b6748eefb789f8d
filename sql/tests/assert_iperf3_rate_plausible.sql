-- check: every iperf3 rate is at most ten times the fastest line rate in ethernet_classes.csv
-- blocking: true
-- fix: re-run iperf3 on the link and replace the file, or add the link's class to raw_data/reference/ethernet_classes.csv when it is faster than every class listed
-- A rate an order of magnitude above any link the project knows is not a measurement: a
-- summary of 1e308 bits/s whose bytes agree with it passes the parser's own checks (finite,
-- positive, bytes * 8 / seconds). The campaign is withheld, naming the file and the rate. Links
-- faster than the classes listed: add their class to raw_data/reference/ethernet_classes.csv.
with fastest as (
    select max(line_rate_bits_per_s) as bits_per_s from ref_ethernet_classes
)
select r.campaign, r.source_file, r.sent_bits_per_s, r.received_bits_per_s,
       10 * f.bits_per_s as limit_bits_per_s
from stg_raw__iperf3_runs as r
cross join fastest as f
where greatest(coalesce(r.sent_bits_per_s, 0), coalesce(r.received_bits_per_s, 0)) > 10 * f.bits_per_s
