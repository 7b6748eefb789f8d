-- grain: one row per campaign and host
with hosts as (
    select campaign, unnest(json_keys(hosts)) as host, hosts
    from raw_campaigns
),
final as (
    select campaign, host, hosts->host->>'role' as role
    from hosts
)
select * from final
order by campaign, host
