-- grain: one row per campaign, backend and transfer size
-- key: campaign, backend, size_bytes
-- Model (tc settings without a rate cap): time = base + k x RTT_added. netem delays every
-- packet the receiver sends, so a setting of d adds d to each round trip, and the slope k of
-- median time against d is the number of round trips the transfer waits for.
-- Model (rate cap only, no delay): time = a + s x bytes x 8 / cap. s = 1 means the backend
-- fills the cap; the effective share of the cap is 1 / s.
-- column n_delay_settings: the uncapped settings the delay fit uses (at least 2, else the fit is
--    empty)
-- column base_time_s: the delay fit's intercept: the transfer's time with no added delay
-- column round_trips: the delay fit's slope: the round trips the transfer waits for (seconds per
--    second of added RTT)
-- column delay_fit_r2: R squared of the delay fit
-- column n_cap_settings: the rate-cap-only settings the cap fit uses (at least 2, else the fit is
--    empty)
-- column cap_intercept_s: the cap fit's intercept: the time that does not scale with the cap
-- column wire_time_slope: the cap fit's slope: median time per second of wire time at the cap (1:
--    the backend fills the cap)
-- column effective_fraction_of_cap: 1 / wire_time_slope: the share of the cap the backend reaches
-- column cap_fit_r2: R squared of the cap fit
-- column round_trips_vs_nccl: this backend's round trips over NCCL's at the same size
with cells as (
    select * from fct_p2p_tc_times
),
delay_fit as (
    select
        campaign,
        backend,
        size_bytes,
        count(*) as n_delay_settings,
        regr_intercept(median_time_s, coalesce(tc_delay_s, 0)) as base_time_s,
        regr_slope(median_time_s, coalesce(tc_delay_s, 0)) as round_trips,
        regr_r2(median_time_s, coalesce(tc_delay_s, 0)) as delay_fit_r2
    from cells
    where tc_rate_bits_per_s is null
    group by campaign, backend, size_bytes
    having count(*) >= 2
),
cap_fit as (
    select
        campaign,
        backend,
        size_bytes,
        count(*) as n_cap_settings,
        regr_intercept(median_time_s, wire_time_at_cap_s) as cap_intercept_s,
        regr_slope(median_time_s, wire_time_at_cap_s) as wire_time_slope,
        regr_r2(median_time_s, wire_time_at_cap_s) as cap_fit_r2
    from cells
    where tc_rate_bits_per_s is not null and coalesce(tc_delay_s, 0) = 0
    group by campaign, backend, size_bytes
    having count(*) >= 2
),
keys as (
    select campaign, backend, size_bytes,
           list_sort(list_distinct(flatten(list(source_files)))) as source_files
    from cells
    group by campaign, backend, size_bytes
),
joined as (
    select
        keys.campaign,
        keys.backend,
        keys.size_bytes,
        keys.source_files,
        delay_fit.n_delay_settings,
        delay_fit.base_time_s,
        delay_fit.round_trips,
        delay_fit.delay_fit_r2,
        cap_fit.n_cap_settings,
        cap_fit.cap_intercept_s,
        cap_fit.wire_time_slope,
        1 / cap_fit.wire_time_slope as effective_fraction_of_cap,
        cap_fit.cap_fit_r2
    from keys
    left join delay_fit
        on delay_fit.campaign = keys.campaign and delay_fit.backend = keys.backend and delay_fit.size_bytes = keys.size_bytes
    left join cap_fit
        on cap_fit.campaign = keys.campaign and cap_fit.backend = keys.backend and cap_fit.size_bytes = keys.size_bytes
),
final as (
    select
        joined.*,
        joined.round_trips / nccl.round_trips as round_trips_vs_nccl
    from joined
    left join joined as nccl
        on nccl.campaign = joined.campaign and nccl.size_bytes = joined.size_bytes
        and nccl.backend = 'nccl'
)
select * from final
order by campaign, size_bytes, backend
