-- grain: one row per network kind with a typical per-hop round-trip time
-- key: network
-- why: §5.4 table; one-way latency is taken as half the round trip.
-- column network: the network kind's key in typical_rtt.csv
-- column label: the network kind as the pages print it
-- column rtt_low_s: the low end of its typical per-hop round-trip time
-- column rtt_high_s: the high end of its typical per-hop round-trip time
-- column one_way_low_s: half of rtt_low_s (one-way latency)
-- column one_way_high_s: half of rtt_high_s
-- column sort_order: the order of §5.4's table
-- column source: where the range is taken from
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
