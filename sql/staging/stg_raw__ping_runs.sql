-- grain: one row per ping run (one file), of every campaign kind
-- ping summaries as parsed, milliseconds kept, for the marts that report on files (a run without replies).
with source as (
    select * from raw_ping
),
renamed as (
    select * from source
)
select * from renamed
