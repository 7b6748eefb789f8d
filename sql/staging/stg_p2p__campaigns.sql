-- grain: one row per point-to-point campaign (manifest kind p2p)
-- The manifest's params hold what the logs lack (instance type, env, commands); they stay JSON
-- here and are flattened for the page in fct_p2p_method.
with source as (
    select * from raw_campaigns
),
renamed as (
    select
        campaign,
        title,
        date as campaign_date,
        provenance,
        params
    from source
    where kind = 'p2p'
)
select * from renamed
order by campaign
