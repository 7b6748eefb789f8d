-- grain: one row per pair of published results in one comparison group that differ in exactly one
-- key: comparison_group, changed_factor
-- network factor (bandwidth or RTT), the better-network result as baseline
-- why: §4.2 / §6: "latency matters more than bandwidth" is a computed slowdown, not a typed one.
with results as (
    select * from dim_published_benchmarks
    where comparison_group is not null
),

pairs as (
    select
        base.comparison_group,
        base.system,
        base.model,
        case
            when base.rtt_s = other.rtt_s then 'bandwidth'
            else 'latency'
        end as changed_factor,
        base.network as baseline_network,
        other.network as changed_network,
        base.link_bits_per_s as baseline_link_bits_per_s,
        other.link_bits_per_s as changed_link_bits_per_s,
        base.rtt_s as baseline_rtt_s,
        other.rtt_s as changed_rtt_s,
        base.tokens_per_s as baseline_tokens_per_s,
        other.tokens_per_s as changed_tokens_per_s,
        1 - other.tokens_per_s / base.tokens_per_s as slowdown_fraction,
        base.reference_key,
        base.sort_order as baseline_sort_order,
        other.sort_order as changed_sort_order
    from results as base
    inner join results as other
        on other.comparison_group = base.comparison_group
        and (
            (base.rtt_s = other.rtt_s and base.link_bits_per_s > other.link_bits_per_s)
            or (base.link_bits_per_s = other.link_bits_per_s and base.rtt_s < other.rtt_s)
        )
)

select * from pairs
order by comparison_group, baseline_sort_order, changed_sort_order
