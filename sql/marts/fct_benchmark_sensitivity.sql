-- grain: one row per pair of published results in one comparison group that differ in exactly one network factor (bandwidth or RTT), the better-network result as baseline
-- key: comparison_group, changed_factor
-- why: §4.2 / §6: "latency matters more than bandwidth" is a computed slowdown, not a typed one.
-- column system: the inference system both results ran
-- column model: the model both results ran, as the publication names it
-- column changed_factor: the one network factor that differs between the two results: bandwidth or
--    latency
-- column baseline_network: the better network, as the publication describes it
-- column changed_network: the worse network, as the publication describes it
-- column baseline_link_bits_per_s: the better network's stated link rate
-- column changed_link_bits_per_s: the worse network's stated link rate
-- column baseline_rtt_s: the better network's stated round-trip time
-- column changed_rtt_s: the worse network's stated round-trip time
-- column baseline_tokens_per_s: the published token rate on the better network
-- column changed_tokens_per_s: the published token rate on the worse network
-- column slowdown_fraction: the rate lost on the worse network: 1 - changed / baseline tokens per
--    second
-- column reference_key: the reference both results are taken from
-- column baseline_sort_order: the baseline result's place in §4.1's table
-- column changed_sort_order: the changed result's place in §4.1's table
with results as (
    select * from dim_published_benchmarks
    where comparison_group is not null
),

final as (
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

select * from final
order by comparison_group, baseline_sort_order, changed_sort_order
