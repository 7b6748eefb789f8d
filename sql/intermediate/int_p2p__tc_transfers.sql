-- grain: one row per timed transfer under a tc network setting (NCCL and Gloo together)
-- Both backends' runs in one shape, so every later model treats them alike.
with nccl as (
    select campaign, source_file, backend, setting_id, tc_delay_s, tc_rate_bits_per_s,
           tc_command, size_bytes, time_s
    from stg_p2p__nccl_tests
    where setting_id is not null
),
gloo as (
    select campaign, source_file, backend, setting_id, tc_delay_s, tc_rate_bits_per_s,
           tc_command, size_bytes, time_s
    from stg_p2p__gloo_bench
    where setting_id is not null
),
final as (
    select * from nccl
    union all
    select * from gloo
)
select * from final
order by campaign, setting_id, backend, size_bytes, time_s
