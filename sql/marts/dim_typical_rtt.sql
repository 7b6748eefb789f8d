-- grain: one row per network kind with a typical per-hop round-trip time
-- key: network
-- why: §5.4 table; one-way latency is taken as half the round trip.
with source as (
    select * from ref_typical_rtt
),

final as (
    select
        network,
        label,
        rtt_low_s,
        rtt_high_s,
        rtt_low_s / 2 as one_way_low_s,
        rtt_high_s / 2 as one_way_high_s,
        sort_order,
        source
    from source
)

select * from final
order by sort_order
