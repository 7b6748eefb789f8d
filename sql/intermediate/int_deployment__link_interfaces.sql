-- grain: one row per campaign, link and host end (one row with no host for a link whose
-- manifest names no interfaces)
-- The manifest names, for each link, the interface each host uses on it; a link without that
-- map still exists (its speed then comes from ethtool files that name the link). The link's
-- shaping (a tc rate) and whether ethtool's speed is a nominal one (a veth) come along: they
-- decide what "line rate" is on that link.
with links as (
    select campaign, unnest(json_keys(links)) as link_id, links
    from stg_raw__campaigns
),
ends as (
    select
        campaign,
        link_id,
        links->link_id->>'label' as label,
        links->link_id->>'class' as link_class,
        links->link_id->>'status' as status,
        try_cast(links->link_id->>'shaped_rate_bits_per_s' as double) as shaped_rate_bits_per_s,
        -- the shaper's bucket: the manifest's figure, else the burst of the tc command it
        -- records ("burst 64kb": tc's kb is KiB); empty when neither says
        coalesce(try_cast(links->link_id->>'shaped_burst_bytes' as double),
                 kib_to_bytes(try_cast(nullif(regexp_extract(links->link_id->>'qdisc',
                                                             '\bburst (\d+)kb\b', 1), '')
                                       as double))) as shaped_burst_bytes,
        coalesce(try_cast(links->link_id->>'nominal_speed' as boolean), false) as nominal_speed,
        unnest(coalesce(json_keys(links->link_id->'interfaces'), [null])) as host,
        links->link_id->'interfaces' as interfaces
    from links
),
final as (
    select campaign, link_id, label, link_class, status, shaped_rate_bits_per_s, shaped_burst_bytes,
           nominal_speed, host, interfaces->>host as interface
    from ends
)
select * from final
order by campaign, link_id, host
