-- grain: one row per campaign, link and host end
-- The manifest names, for each link, the interface each host uses on it.
with links as (
    select campaign, unnest(json_keys(links)) as link_id, links
    from raw_campaigns
),
ends as (
    select
        campaign,
        link_id,
        links->link_id->>'label' as label,
        links->link_id->>'class' as link_class,
        links->link_id->>'status' as status,
        unnest(json_keys(links->link_id->'interfaces')) as host,
        links->link_id->'interfaces' as interfaces
    from links
),
final as (
    select campaign, link_id, label, link_class, status, host, interfaces->>host as interface
    from ends
)
select * from final
order by campaign, link_id, host
