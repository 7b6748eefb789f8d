-- grain: one row per pipeline stage count x network kind
-- key: pp_stages, network
-- why: §5.4: in a pipeline of N stages a token's hidden state makes one trip round the ring,
-- N one-way hops = N x RTT / 2 of network latency per token; its share of the token time is
-- latency / (compute + latency) with the declared per-token compute time. Low and high ends of
-- the typical RTT range give a band.
-- column pp_stages: the pipeline stage count (pipeline_grid.csv)
-- column network_label: the network kind as the pages print it
-- column network_sort_order: the order of §5.4's table
-- column token_compute_s: the declared compute time of one token step
-- column network_low_s: network latency per token at the low RTT: stages x one-way latency
-- column network_high_s: network latency per token at the high RTT
-- column network_share_low_fraction: latency / (compute + latency) at the low RTT
-- column network_share_high_fraction: latency / (compute + latency) at the high RTT
with stages as (
    select value::integer as pp_stages from ref_pipeline_grid where dimension = 'pp_stages'
),

networks as (
    select * from dim_typical_rtt
),

params as (
    select * from dim_parallelism_params
),

latency as (
    select
        stages.pp_stages,
        networks.network,
        networks.label as network_label,
        networks.sort_order as network_sort_order,
        params.token_compute_s,
        stages.pp_stages * networks.one_way_low_s as network_low_s,
        stages.pp_stages * networks.one_way_high_s as network_high_s
    from stages
    cross join networks
    cross join params
),

final as (
    select
        *,
        network_low_s / (token_compute_s + network_low_s) as network_share_low_fraction,
        network_high_s / (token_compute_s + network_high_s) as network_share_high_fraction
    from latency
)

select * from final
order by pp_stages, network_sort_order
