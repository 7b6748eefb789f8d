-- grain: one row per campaign, tc setting, backend and transfer size
-- key: campaign, setting_id, backend, size_bytes
-- The median of the repeated transfers is the figure; quartiles and min/max give the spread.
-- Effective bandwidth = bytes x 8 / median time; under a rate cap it is also a fraction of it.
-- column n_transfers: the repeated transfers timed at the setting
-- column median_time_s: their median time (the figure the pages print)
-- column p25_time_s: their 25th percentile time
-- column p75_time_s: their 75th percentile time
-- column min_time_s: the fastest transfer
-- column max_time_s: the slowest transfer
-- column iqr_fraction: the interquartile range over the median (the spread)
-- column effective_bits_per_s: the rate the transfer achieved: size x 8 / median time
-- column wire_time_at_cap_s: the time the bytes need at the rate cap: size x 8 / cap (empty when
--    uncapped)
-- column fraction_of_cap: the effective rate over the cap (empty when uncapped)
with transfers as (
    select * from int_p2p__tc_transfers
),
settings as (
    select campaign, setting_id, setting_order, setting_kind from dim_p2p_tc_settings
),
stats as (
    select
        campaign,
        setting_id,
        backend,
        size_bytes,
        any_value(tc_delay_s) as tc_delay_s,
        any_value(tc_rate_bits_per_s) as tc_rate_bits_per_s,
        count(*) as n_transfers,
        median(time_s) as median_time_s,
        quantile_cont(time_s, 0.25) as p25_time_s,
        quantile_cont(time_s, 0.75) as p75_time_s,
        min(time_s) as min_time_s,
        max(time_s) as max_time_s,
        list(distinct source_file order by source_file) as source_files
    from transfers
    group by campaign, setting_id, backend, size_bytes
),
final as (
    select
        stats.*,
        settings.setting_order,
        settings.setting_kind,
        (stats.p75_time_s - stats.p25_time_s) / stats.median_time_s as iqr_fraction,
        bytes_to_bits(stats.size_bytes) / stats.median_time_s as effective_bits_per_s,
        bytes_to_bits(stats.size_bytes) / stats.tc_rate_bits_per_s as wire_time_at_cap_s,
        bytes_to_bits(stats.size_bytes) / stats.median_time_s / stats.tc_rate_bits_per_s as fraction_of_cap
    from stats
    join settings on settings.campaign = stats.campaign and settings.setting_id = stats.setting_id
)
select * from final
order by campaign, setting_order, size_bytes, backend
