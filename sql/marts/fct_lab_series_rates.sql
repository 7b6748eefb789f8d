-- grain: one row per lab series campaign, link (rate) and measured quantity
-- key: campaign, link_id, quantity
-- Each rate's runs summed up: how many, the median, the quartiles and their spread (IQR), the
-- extremes, and an exact bootstrap interval of the median at the level lab_rate_interval_level
-- (measurement_params.csv; no level, no interval). The bootstrap is computed, not
-- sampled: a resample of n runs has its median (the k-th smallest, k = (n + 1) / 2 rounded
-- down) at or below the j-th smallest run exactly when at least k of its n draws are, so
-- P(median* <= x_(j)) = sum over i >= k of C(n, i) (j/n)^i (1 - j/n)^(n - i); the interval runs
-- from the first run where that reaches (1 - level) / 2 to the first where it reaches
-- (1 + level) / 2 (at 0.95 with 5 runs: the smallest and the largest run). Same runs, same
-- interval, every build.
-- column series: the lab series (manifest params.lab_series)
-- column link_id: the run's link: one per rate (veth_tbf<R>, or veth unshaped)
-- column shaped_rate_bits_per_s: the tbf rate of the link, empty when unshaped
-- column tcp_bits_per_s: the link's measured TCP rate (mean of the two iperf3 directions)
-- column rtt_avg_s: the link's ping RTT
-- column quantity: prefill (tok/s), decode step (s) or KV snapshot (s)
-- column sort_order: the quantity's order: prefill, decode step, KV snapshot
-- column unit: tok/s or s
-- column runs: how many runs measured the quantity at this rate
-- column median: the runs' median
-- column q1: the runs' first quartile (linear interpolation)
-- column q3: the runs' third quartile (linear interpolation)
-- column iqr_fraction: (q3 - q1) / median
-- column ci_level: the interval's level (lab_rate_interval_level), e.g. 0.95
-- column ci_low: the exact bootstrap interval of the median at ci_level, its lower end
-- column ci_high: the exact bootstrap interval of the median at ci_level, its upper end
-- column min: the smallest run
-- column max: the largest run
-- column rounds: the rounds the runs came from (params.lab_runs round)
with runs as (
    select * from int_lab__series_runs
),
links as (
    select * from int_lab__series_links
),
params as (
    select max(value::double) filter (where parameter = 'lab_rate_interval_level') as level
    from ref_measurement_params
),
long as (
    select campaign, series, link_id, round, journal_file, 'prefill' as quantity, 1 as sort_order,
           'tok/s' as unit, prefill_tokens_per_s as value
    from runs
    union all
    select campaign, series, link_id, round, journal_file, 'decode step', 2, 's', decode_step_s
    from runs
    union all
    select campaign, series, link_id, round, journal_file, 'KV snapshot', 3, 's', snapshot_s
    from runs
),
measured as (
    select *, row_number() over (partition by campaign, link_id, quantity order by value) as j,
           count(*) over (partition by campaign, link_id, quantity) as n
    from long
    where value is not null
),
bootstrap as (
    -- P(resampled median <= the j-th smallest run), exact
    select
        m.campaign, m.link_id, m.quantity, m.j, m.value,
        sum(exp(lgamma(m.n + 1) - lgamma(i + 1) - lgamma(m.n - i + 1))
            * power(m.j / m.n, i) * power(1 - m.j / m.n, m.n - i)) as cdf
    from measured as m, range(0, 1000) as r(i)
    where i between (m.n + 1) // 2 and m.n
    group by all
),
interval as (
    select
        campaign, link_id, quantity, any_value(p.level) as ci_level,
        arg_min(value, j) filter (where cdf >= (1 - p.level) / 2 - 1e-12) as ci_low,
        arg_min(value, j) filter (where cdf >= (1 + p.level) / 2 - 1e-12) as ci_high
    from bootstrap, params as p
    group by campaign, link_id, quantity
),
summary as (
    select
        campaign, series, link_id, quantity, sort_order, unit,
        count(*) as runs,
        median(value) as median,
        quantile_cont(value, 0.25) as q1,
        quantile_cont(value, 0.75) as q3,
        min(value) as min,
        max(value) as max,
        list_sort(list_distinct(list(round))) as rounds,
        list_sort(list_distinct(list(journal_file))) as journal_files
    from measured
    group by all
),
final as (
    select
        s.campaign,
        s.series,
        s.link_id,
        l.shaped_rate_bits_per_s,
        bytes_to_bits(l.tcp_bytes_per_s) as tcp_bits_per_s,
        l.rtt_avg_s,
        s.quantity,
        s.sort_order,
        s.unit,
        s.runs,
        s.median,
        s.q1,
        s.q3,
        (s.q3 - s.q1) / s.median as iqr_fraction,
        i.ci_level,
        i.ci_low,
        i.ci_high,
        s.min,
        s.max,
        s.rounds,
        list_sort(list_distinct(list_concat(coalesce(l.source_files, []), s.journal_files)))
            as source_files
    from summary as s
    join interval as i using (campaign, link_id, quantity)
    left join links as l using (campaign, link_id)
)
select * from final
order by campaign, sort_order, shaped_rate_bits_per_s nulls last, link_id
