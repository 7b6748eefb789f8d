-- grain: one row per NCCL_DEBUG=INFO log
-- What NCCL said it used, from a debug log kept on its own.
with source as (
    select * from raw_nccl_debug
),
renamed as (
    select * from source
)
select * from renamed
