-- grain: one row per campaign and host
-- The role each host of a deployment plays (head runs llama-server, worker runs rpc-server), as
-- the manifest's hosts say, so later models name the head and the worker without guessing.
with hosts as (
    select campaign, unnest(json_keys(hosts)) as host, hosts
    from stg_raw__campaigns
),
final as (
    select campaign, host, hosts->host->>'role' as role
    from hosts
)
select * from final
order by campaign, host
