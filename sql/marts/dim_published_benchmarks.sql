-- grain: one row per published multi-node inference result (§4.1)
-- key: system, model, hardware, network, scheme
-- why: published numbers are declared data with their reference key, rendered as-is.
-- column system: the inference system the publication ran (Petals, exo, llama.cpp RPC, ...)
-- column model: the model the publication ran, as it names it
-- column hardware: the machines the publication ran on, as it describes them
-- column nodes: how many machines took part
-- column network: the network between the machines, as the publication describes it
-- column scheme: the parallelism scheme the publication used, as it names it (PP, TP, ...)
-- column tokens_per_s: the token rate the publication reports
-- column tokens_per_s_qualifier: what the rate counts when it is not single-sequence decode (empty
--    otherwise)
-- column link_bits_per_s: the link rate the publication states, empty when it states none
-- column rtt_s: the round-trip time the publication states, empty when it states none
-- column comparison_group: the rows that change one factor of the same setup (compared in §4.1)
-- column notes: the publication's conditions that matter for the comparison
-- column reference_key: the reference in references.csv the row is taken from
-- column sort_order: the order of §4.1's table
-- column source: where the number was taken from, and whether it was re-checked
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
