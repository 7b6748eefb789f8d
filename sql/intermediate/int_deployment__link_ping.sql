-- grain: one row per campaign and link with at least one ping file
-- Several ping runs of one link are pooled into one summary, never multiplied into several
-- rows: min of the minima, max of the maxima, the mean weighted by replies, and the pooled
-- deviation sqrt(sum n_i (mdev_i^2 + avg_i^2) / N - avg^2), the same population deviation
-- iputils prints as mdev, over all replies. A run with every reply lost adds packets, no RTT.
with ping as (
    select * from stg_deployment__ping
),
final as (
    select
        campaign,
        link_id,
        count(*) as ping_runs,
        list(source_file order by source_file) as source_files,
        string_agg(source_file, ', ' order by source_file) as ping_files,
        sum(packets_transmitted) as packets_transmitted,
        sum(packets_received) as packets_received,
        1 - sum(packets_received)::double / nullif(sum(packets_transmitted), 0) as packet_loss_fraction,
        min(rtt_min_s) as rtt_min_s,
        sum(rtt_avg_s * packets_received) filter (where rtt_avg_s is not null)
            / nullif(sum(packets_received) filter (where rtt_avg_s is not null), 0) as rtt_avg_s,
        max(rtt_max_s) as rtt_max_s,
        -- greatest() skips NULLs: without the case a link whose pings print no deviation
        -- (Windows ping.exe) would show a deviation of 0 instead of none
        case when count(rtt_mdev_s) > 0 then sqrt(greatest(
            sum(packets_received * (rtt_mdev_s * rtt_mdev_s + rtt_avg_s * rtt_avg_s))
                filter (where rtt_mdev_s is not null)
                / nullif(sum(packets_received) filter (where rtt_mdev_s is not null), 0)
            - power(sum(rtt_avg_s * packets_received) filter (where rtt_mdev_s is not null)
                / nullif(sum(packets_received) filter (where rtt_mdev_s is not null), 0), 2),
            0)) end as rtt_mdev_s
    from ping
    group by campaign, link_id
)
select * from final
order by campaign, link_id
