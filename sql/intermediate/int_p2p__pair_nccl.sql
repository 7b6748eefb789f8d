-- grain: one row per campaign, ordered region pair (receiver, sender) and NCCL series
-- Bandwidth = bytes x 8 / median transfer time over every cycle and placement of the pair's
-- logs: the median, not the mean, so one slow cycle does not move the figure.
with results as (
    select * from stg_p2p__nccl_tests
    where receiver is not null and sender is not null
),
final as (
    select
        campaign,
        receiver,
        sender,
        series,
        max(size_bytes) as size_bytes,
        count(*) as n_transfers,
        median(time_s) as median_time_s,
        bytes_to_bits(max(size_bytes)) / median(time_s) as bits_per_s,
        list(distinct source_file order by source_file) as source_files
    from results
    group by campaign, receiver, sender, series
    -- one size per pair: a mixed log would make bytes/time meaningless
    having min(size_bytes) = max(size_bytes)
)
select * from final
order by campaign, receiver, sender, series
