-- grain: one row per deployment campaign and link (declared in its manifest)
-- key: campaign, link_id
-- Each link's negotiated speed (the slower end), iperf3 TCP throughput per direction (the mean
-- of the runs in that direction) and pooled ping RTT, and how its RTT compares with the
-- campaign's current link. A link whose files are missing keeps NULL there ("not measured").
-- column label: the link's label from the manifest
-- column link_class: the Ethernet class the manifest gives the link (empty for a VPN or virtual
--    link)
-- column status: the link's state from the manifest: current (in use) or retired
-- column negotiated_bits_per_s: the slower end's negotiated speed (ethtool), empty without ethtool
--    output
-- column ends_text: each end's host, interface and negotiated speed, as one line of text
-- column ethtool_files: the ethtool outputs read, comma separated
-- column iperf3_head_to_worker_bytes_per_s: the mean received TCP rate of the head -> worker iperf3
--    runs
-- column iperf3_worker_to_head_bytes_per_s: the mean received TCP rate of the worker -> head iperf3
--    runs
-- column iperf3_head_to_worker_runs: how many head -> worker iperf3 runs were averaged
-- column iperf3_worker_to_head_runs: how many worker -> head iperf3 runs were averaged
-- column iperf3_files: the iperf3 JSON files read, comma separated
-- column ping_runs: how many ping runs were pooled
-- column ping_file: the ping outputs read, comma separated
-- column current_rtt_min_s: the minimum RTT of the campaign's current link
-- column current_rtt_mdev_s: the RTT mean deviation of the campaign's current link
-- column rtt_min_minus_current_s: this link's minimum RTT minus the current link's (what moving to
--    it added or saved)
-- column rtt_mdev_minus_current_s: this link's RTT mean deviation minus the current link's
-- column sort_order: the link class's order (slowest first; empty for a link without a class)
with ends as (
    -- a lab series' links are its own page's (int_lab__series_links), not a deployment's
    select * from int_deployment__link_interfaces
    where campaign not in (select campaign from stg_raw__campaigns where kind = 'lab_series')
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
                   coalesce(bits_to_mbit(e.negotiated_bits_per_s)::bigint::varchar || ' Mbit/s', 'unknown'),
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
