-- grain: one row per nccl-tests result row, of every campaign kind
-- nccl-tests rows with the NCCL INFO facts the parser kept beside them.
with source as (
    select * from raw_nccl_tests
),
renamed as (
    select * from source
)
select * from renamed
