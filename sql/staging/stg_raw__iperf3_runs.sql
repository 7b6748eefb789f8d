-- grain: one row per iperf3 run (one file), of every campaign kind
-- iperf3 end summaries as parsed, UDP runs with their jitter and loss, for the marts that show
-- them beside the TCP runs the deployment and p2p staging models keep.
with source as (
    select * from raw_iperf3
),
renamed as (
    select * from source
)
select * from renamed
