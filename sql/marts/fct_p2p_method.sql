-- grain: one row per point-to-point campaign and recorded setting (environment variable, command or campaign parameter)
-- key: campaign, section, name
-- The method notes on the page are the manifest's own words, flattened from params JSON.
-- column section: where the setting sits in the manifest's params: env (an environment variable),
--    command, or param
-- column name: the setting's name
-- column value: the setting's value as the manifest writes it (a list stays its JSON text)
with campaigns as (
    select * from stg_p2p__campaigns
),
env as (
    select campaign, 'env' as section, e.key as name, e.value->>'$' as value
    from campaigns, json_each(campaigns.params->'env') as e
),
commands as (
    select campaign, 'command' as section, c.key as name, c.value->>'$' as value
    from campaigns, json_each(campaigns.params->'commands') as c
),
scalars as (
    select campaign, 'param' as section, p.key as name,
           -- lists (e.g. sizes_bytes) stay as their JSON text
           p.value->>'$' as value
    from campaigns, json_each(campaigns.params) as p
    where p.key not in ('env', 'commands')
),
final as (
    select * from env
    union all
    select * from commands
    union all
    select * from scalars
)
select * from final
order by campaign, section, name
