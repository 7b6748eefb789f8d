-- grain: one row per campaign, measured link and iperf3 run (one row for a link with ping only)
-- key: campaign, link_id, iperf3_file
-- Every link that a deployment campaign measured, captured or reconstructed, in one list: the
-- throughput iperf3 got in each direction, the ping RTT of the link and its line rate (the
-- slower negotiated end, or the shaped rate where the campaign shaped it).
-- column label: the link's label from its manifest (its id when the manifest gives none)
-- column link_class: the Ethernet class the manifest gives the link (empty for a VPN or virtual
--    link)
-- column negotiated_bits_per_s: the slower end's negotiated speed (ethtool)
-- column shaped_rate_bits_per_s: the rate the manifest says the campaign shaped the link to, empty
--    when unshaped
-- column num_streams: the parallel TCP streams of the iperf3 run
-- column received_bits_per_s: the rate iperf3 reports at the receiver for this run
-- column line_rate_fraction: the received rate over the link's line rate (the shaped rate, else the
--    negotiated speed; empty on a link whose speed the manifest marks nominal_speed)
-- column line_rate_basis: what the share is taken of: 'shaped rate', 'negotiated speed', or 'no
--    line rate (nominal speed)'
-- column iperf3_file: the iperf3 JSON of this run (empty on a link with ping only)
-- column ping_files: the ping outputs pooled for the link's RTT
with campaigns as (
    select campaign, title, provenance, date, links
    from stg_raw__campaigns
    where kind = 'deployment'
),
iperf as (
    select campaign, link_id, sender, receiver, num_streams, duration_s, received_bits_per_s,
           source_file as iperf3_file
    from stg_deployment__iperf3
),
ping as (
    select * from int_deployment__link_ping
),
ethtool_by_context as (
    select f.campaign, f.link_id, min(e.negotiated_bits_per_s) as negotiated_bits_per_s
    from stg_deployment__ethtool as e
    join stg_raw__file_context as f on f.source_file = e.source_file
    where f.link_id is not null
    group by all
),
ethtool_by_interfaces as (
    select campaign, link_id, negotiated_bits_per_s from fct_deployment_links
),
links as (
    select campaign, link_id from iperf
    union
    select campaign, link_id from ping
),
final as (
    select
        links.campaign,
        campaigns.title as campaign_title,
        campaigns.provenance,
        campaigns.date as campaign_date,
        links.link_id,
        coalesce(campaigns.links->links.link_id->>'label', links.link_id) as label,
        campaigns.links->links.link_id->>'class' as link_class,
        coalesce(by_if.negotiated_bits_per_s, by_ctx.negotiated_bits_per_s) as negotiated_bits_per_s,
        try_cast(campaigns.links->links.link_id->>'shaped_rate_bits_per_s' as double)
            as shaped_rate_bits_per_s,
        iperf.sender,
        iperf.receiver,
        iperf.num_streams,
        iperf.received_bits_per_s,
        -- of the shaped rate when the link was shaped; of the negotiated speed, unless the
        -- manifest says that speed is the driver's nominal figure (a veth pair): then there is
        -- no line rate to take a share of (sql/macros.sql line_rate)
        iperf.received_bits_per_s
            / line_rate(try_cast(campaigns.links->links.link_id->>'shaped_rate_bits_per_s' as double),
                        try_cast(campaigns.links->links.link_id->>'nominal_speed' as boolean),
                        coalesce(by_if.negotiated_bits_per_s, by_ctx.negotiated_bits_per_s))
            as line_rate_fraction,
        line_rate_basis(try_cast(campaigns.links->links.link_id->>'shaped_rate_bits_per_s' as double),
                        try_cast(campaigns.links->links.link_id->>'nominal_speed' as boolean),
                        coalesce(by_if.negotiated_bits_per_s, by_ctx.negotiated_bits_per_s))
            as line_rate_basis,
        iperf.iperf3_file,
        ping.rtt_min_s,
        ping.rtt_avg_s,
        ping.rtt_max_s,
        ping.rtt_mdev_s,
        ping.packet_loss_fraction,
        ping.ping_files,
        list_distinct(flatten([coalesce(ping.source_files, []),
                               list_filter([iperf.iperf3_file], lambda f: f is not null)]))
            as source_files
    from links
    join campaigns on campaigns.campaign = links.campaign
    left join iperf on iperf.campaign = links.campaign and iperf.link_id = links.link_id
    left join ping on ping.campaign = links.campaign and ping.link_id = links.link_id
    left join ethtool_by_interfaces as by_if
        on by_if.campaign = links.campaign and by_if.link_id = links.link_id
    left join ethtool_by_context as by_ctx
        on by_ctx.campaign = links.campaign and by_ctx.link_id = links.link_id
)
select * from final
order by campaign, link_id, sender
