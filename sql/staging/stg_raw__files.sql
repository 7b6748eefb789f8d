-- grain: one row per raw file listed in or found beside a campaign manifest
-- Every file of a campaign with its scan status, size and sha256, the one way marts reach raw_files.
with source as (
    select * from raw_files
),
renamed as (
    select * from source
)
select * from renamed
