-- grain: one row per published multi-node inference result (§4.1)
-- key: system, model, hardware, network, scheme
-- why: published numbers are declared data with their reference key, rendered as-is.
with source as (
    select * from ref_published_benchmarks
),

final as (
    select
        system,
        model,
        hardware,
        nodes,
        network,
        scheme,
        tokens_per_s,
        coalesce(tokens_per_s_qualifier, '') as tokens_per_s_qualifier,
        link_bits_per_s::double as link_bits_per_s,
        rtt_s,
        comparison_group,
        notes,
        reference_key,
        sort_order,
        source
    from source
)

select * from final
order by sort_order
