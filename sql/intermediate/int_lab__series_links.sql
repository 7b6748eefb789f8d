-- grain: one row per lab series campaign and link (one link per rate the series ran at)
-- What the series' own collectors measured on each of its links before the rounds: the
-- received TCP rate of iperf3 each way (a UDP run is not a TCP rate), its mean, and ping's
-- RTT pooled over the link's runs by replies. Nothing comes from another campaign.
with campaigns as (
    select campaign from stg_raw__campaigns where kind = 'lab_series'
),
links as (
    select distinct i.campaign, i.link_id, i.label, i.shaped_rate_bits_per_s, i.shaped_burst_bytes
    from int_deployment__link_interfaces as i
    join campaigns using (campaign)
),
files as (
    select * from stg_raw__file_context
),
iperf3 as (
    select f.campaign, f.link_id, f.sender, f.receiver,
           bits_to_bytes(r.received_bits_per_s) as received_bytes_per_s, r.source_file
    from raw_iperf3 as r
    join files as f on f.source_file = r.source_file
    join campaigns on campaigns.campaign = f.campaign
    where coalesce(r.protocol, 'TCP') = 'TCP'
),
ping as (
    select f.campaign, f.link_id, p.packets_received, ms_to_s(p.rtt_avg_ms) as rtt_avg_s,
           p.source_file
    from raw_ping as p
    join files as f on f.source_file = p.source_file
    join campaigns on campaigns.campaign = f.campaign
),
tcp as (
    select
        campaign, link_id,
        avg(received_bytes_per_s) filter (where sender < receiver) as tcp_a_to_b_bytes_per_s,
        avg(received_bytes_per_s) filter (where sender > receiver) as tcp_b_to_a_bytes_per_s,
        list(source_file order by source_file) as iperf3_files
    from iperf3
    group by all
),
rtt as (
    select
        campaign, link_id,
        sum(rtt_avg_s * packets_received) filter (where rtt_avg_s is not null)
            / nullif(sum(packets_received) filter (where rtt_avg_s is not null), 0) as rtt_avg_s,
        list(source_file order by source_file) as ping_files
    from ping
    group by all
),
final as (
    select
        links.campaign,
        links.link_id,
        links.label,
        links.shaped_rate_bits_per_s,
        links.shaped_burst_bytes,
        -- the usable TCP rate: the mean of the two directions (both are needed)
        (tcp.tcp_a_to_b_bytes_per_s + tcp.tcp_b_to_a_bytes_per_s) / 2 as tcp_bytes_per_s,
        rtt.rtt_avg_s,
        list_sort(list_concat(coalesce(tcp.iperf3_files, []), coalesce(rtt.ping_files, [])))
            as source_files
    from links
    left join tcp using (campaign, link_id)
    left join rtt using (campaign, link_id)
)
select * from final
order by campaign, shaped_rate_bits_per_s nulls last, link_id
