-- grain: one row per run of a lab series campaign and measured quantity
-- Each run as a point of the model fit: x = 1 / the run's link TCP rate (seconds per byte, so a
-- slope is bytes), y = the quantity as a time (the prefill of the whole prompt, one decode
-- step, the KV snapshot). Calibration or validation is decided per rate, before any fit: the
-- unshaped link and every other shaped rate from the slowest up (1st, 3rd, 5th …) calibrate;
-- the rates between them validate, so every validated rate lies inside the calibrated span and
-- none of its runs is seen by the fit.
with runs as (
    select * from int_lab__series_runs
),
links as (
    select * from int_lab__series_links
),
ranked as (
    select
        campaign, link_id, shaped_rate_bits_per_s, tcp_bytes_per_s,
        dense_rank() over (partition by campaign order by shaped_rate_bits_per_s) as rate_rank
    from links
),
roles as (
    select
        *,
        case when shaped_rate_bits_per_s is null or rate_rank % 2 = 1 then 'calibration'
             else 'validation' end as role
    from ranked
),
long as (
    select campaign, series, run, round, link_id, 'prefill' as quantity, prefill_s as y,
           prefill_tokens as tokens
    from runs
    union all
    select campaign, series, run, round, link_id, 'decode step', decode_step_s, decode_tokens from runs
    union all
    select campaign, series, run, round, link_id, 'KV snapshot', snapshot_s, snapshot_tokens from runs
),
final as (
    select
        long.campaign,
        long.series,
        long.run,
        long.round,
        long.link_id,
        roles.shaped_rate_bits_per_s,
        roles.tcp_bytes_per_s,
        roles.role,
        long.quantity,
        long.tokens,
        1 / roles.tcp_bytes_per_s as x,
        long.y
    from long
    join roles using (campaign, link_id)
    where long.y is not null and roles.tcp_bytes_per_s is not null
)
select * from final
order by campaign, quantity, run
