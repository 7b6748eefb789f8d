-- grain: one row per log line of a llama-server log
-- Every parsed log line as the parser wrote it, for the marts that report on files (blob data, a cut last line).
with source as (
    select * from raw_journal
),
renamed as (
    select * from source
)
select * from renamed
