-- grain: one row per deployment campaign and link (declared in its manifest)
-- key: campaign, link_id
-- Each link's negotiated speed (the slower end), iperf3 TCP throughput per direction (the mean
-- of the runs in that direction) and pooled ping RTT, and how its RTT compares with the
-- campaign's current link. A link whose files are missing keeps NULL there ("not measured").
with ends as (
    select * from int_deployment__link_interfaces
),
roles as (
    select * from int_deployment__host_roles
),
speeds as (
    select
        ends.campaign,
        ends.link_id,
        min(e.negotiated_bits_per_s) as negotiated_bits_per_s,
        string_agg(ends.host || ' ' || ends.interface || ' ' ||
                   coalesce((e.negotiated_bits_per_s / 1e6)::bigint::varchar || ' Mb/s', 'unknown'),
                   ', ' order by ends.host) as ends_text,
        string_agg(e.source_file, ', ' order by ends.host) as ethtool_files,
        list(e.source_file) filter (where e.source_file is not null) as ethtool_source_files
    from ends
    left join stg_deployment__ethtool as e
        on e.campaign = ends.campaign and e.host = ends.host and e.interface = ends.interface
    group by all
),
iperf as (
    select
        i.campaign,
        i.link_id,
        avg(i.received_bytes_per_s) filter (where r.role = 'head') as iperf3_head_to_worker_bytes_per_s,
        avg(i.received_bytes_per_s) filter (where r.role = 'worker') as iperf3_worker_to_head_bytes_per_s,
        count(*) filter (where r.role = 'head') as iperf3_head_to_worker_runs,
        count(*) filter (where r.role = 'worker') as iperf3_worker_to_head_runs,
        string_agg(i.source_file, ', ' order by i.source_file) as iperf3_files,
        list(i.source_file order by i.source_file) as iperf3_source_files
    from stg_deployment__iperf3 as i
    join roles as r on r.campaign = i.campaign and r.host = i.sender
    group by all
),
ping as (
    select * from int_deployment__link_ping
),
links as (
    select distinct campaign, link_id, label, link_class, status from ends
),
joined as (
    select
        links.*,
        speeds.negotiated_bits_per_s,
        speeds.ends_text,
        speeds.ethtool_files,
        iperf.iperf3_head_to_worker_bytes_per_s,
        iperf.iperf3_worker_to_head_bytes_per_s,
        iperf.iperf3_head_to_worker_runs,
        iperf.iperf3_worker_to_head_runs,
        iperf.iperf3_files,
        ping.ping_runs,
        ping.rtt_min_s,
        ping.rtt_avg_s,
        ping.rtt_max_s,
        ping.rtt_mdev_s,
        ping.packet_loss_fraction,
        ping.ping_files as ping_file,
        list_distinct(flatten([coalesce(speeds.ethtool_source_files, []),
                               coalesce(iperf.iperf3_source_files, []),
                               coalesce(ping.source_files, [])])) as source_files
    from links
    left join speeds on speeds.campaign = links.campaign and speeds.link_id = links.link_id
    left join iperf on iperf.campaign = links.campaign and iperf.link_id = links.link_id
    left join ping on ping.campaign = links.campaign and ping.link_id = links.link_id
),
current_link as (
    select campaign, rtt_min_s, rtt_mdev_s from joined where status = 'current'
    qualify row_number() over (partition by campaign order by link_id) = 1
),
final as (
    select
        joined.*,
        current_link.rtt_min_s as current_rtt_min_s,
        current_link.rtt_mdev_s as current_rtt_mdev_s,
        joined.rtt_min_s - current_link.rtt_min_s as rtt_min_minus_current_s,
        joined.rtt_mdev_s - current_link.rtt_mdev_s as rtt_mdev_minus_current_s,
        c.sort_order
    from joined
    left join current_link on current_link.campaign = joined.campaign
    left join dim_link_classes as c on c.link_class = joined.link_class
)
select * from final
order by campaign, sort_order, link_id
