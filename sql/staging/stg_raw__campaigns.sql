-- grain: one row per campaign (its manifest)
-- Every campaign's manifest as the scan read it, the one way marts and intermediate models reach raw_campaigns.
with source as (
    select * from raw_campaigns
),
renamed as (
    select * from source
)
select * from renamed
