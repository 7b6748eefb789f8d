-- grain: one row per point-to-point campaign, region pair (either order) and pipeline-parallel model
-- key: campaign, region_a, region_b, model
-- scope: comparison
-- why: which region pairs can carry pipeline-parallel inference, and which workloads. Each pair
-- is judged by its worse direction: the longer ping RTT and the lower NCCL bandwidth of A->B and
-- B->A (missing when either direction is unmeasured, never the other direction's value). A
-- workload (batch size x token rate per sequence, the grid of §2.2) is carried when both hold:
-- latency: a decode step of the batch crosses the stage boundary and comes back, at least one
-- RTT per token of each sequence, so tokens_per_s x RTT <= 1 (latency_bound_tokens_per_s =
-- 1 / RTT); bandwidth: the workload's required rate (fct_bandwidth_requirements, PP) is below the
-- first feasibility class's share of the pair's NCCL bandwidth (dim_feasibility_thresholds,
-- "feasible"). The table ranks pairs by the latency bound (RTT ascending).
-- column region_a: the pair's first region code (alphabetically)
-- column region_a_name: its name
-- column region_b: the pair's second region code
-- column region_b_name: its name
-- column model: the pipeline-parallel model the workloads are of (a reference shape or a deployed
--    model)
-- column basis: whether the model's PP bytes are measured wire bytes or formula
-- column model_campaign: the deployment campaign a deployed model comes from (empty for a reference
--    shape)
-- column rtt_worst_s: the longer of the two directions' average ping RTT (empty when either is
--    unmeasured)
-- column nccl_worst_bits_per_s: the lower of the two directions' NCCL bandwidth (empty when either
--    is unmeasured)
-- column latency_bound_tokens_per_s: the most tokens per second per sequence one stage boundary
--    allows: 1 / worse RTT
-- column workloads: the workloads judged (batch sizes x token rates of §2.2)
-- column workloads_carried: workloads within both the latency bound and the feasible share of the
--    NCCL bandwidth
-- column workloads_latency_bound: workloads whose token rate exceeds the latency bound
-- column workloads_bandwidth_bound: workloads within the latency bound whose required rate is not
--    in the feasible share
-- column workloads_unknown: workloads that cannot be judged (the pair's RTT or bandwidth is
--    unmeasured)
-- column heaviest_carried_batch_size: the batch size of the carried workload with the highest
--    required rate
-- column heaviest_carried_tokens_per_s: its token rate per sequence
-- column verdict: every workload, some, none, or not measured
-- column pair_rank: the pair's rank in its campaign by worse RTT (lowest first)
with pairs as (
    select * from fct_p2p_region_pairs
),
regions as (
    select * from dim_p2p_regions
),
requirements as (
    select * from fct_bandwidth_requirements where scheme = 'pp'
),
feasible as (
    select * from dim_feasibility_thresholds qualify sort_order = min(sort_order) over ()
),
undirected as (
    select
        campaign,
        least(receiver, sender) as region_a,
        greatest(receiver, sender) as region_b,
        count(*) as directions,
        case when count(rtt_avg_s) = 2 then max(rtt_avg_s) end as rtt_worst_s,
        case when count(nccl_bits_per_s) = 2 then min(nccl_bits_per_s) end as nccl_worst_bits_per_s
    from pairs
    where receiver <> sender
    group by campaign, least(receiver, sender), greatest(receiver, sender)
),
cells as (
    select
        u.campaign, u.region_a, u.region_b, u.rtt_worst_s, u.nccl_worst_bits_per_s,
        r.model, r.model_label, r.model_sort_order, r.basis, r.campaign as model_campaign,
        r.batch_size, r.tokens_per_s, r.required_bits_per_s,
        r.tokens_per_s * u.rtt_worst_s <= 1 as latency_ok,
        case when feasible.upper_inclusive
             then r.required_bits_per_s <= feasible.upper_fraction * u.nccl_worst_bits_per_s
             else r.required_bits_per_s < feasible.upper_fraction * u.nccl_worst_bits_per_s
        end as bandwidth_ok
    from undirected as u
    cross join requirements as r
    cross join feasible
),
judged as (
    select
        campaign, region_a, region_b, model,
        any_value(model_label) as model_label,
        any_value(model_sort_order) as model_sort_order,
        any_value(basis) as basis,
        any_value(model_campaign) as model_campaign,
        any_value(rtt_worst_s) as rtt_worst_s,
        any_value(nccl_worst_bits_per_s) as nccl_worst_bits_per_s,
        count(*) as workloads,
        count(*) filter (where latency_ok and bandwidth_ok) as workloads_carried,
        count(*) filter (where not latency_ok) as workloads_latency_bound,
        count(*) filter (where latency_ok and not bandwidth_ok) as workloads_bandwidth_bound,
        count(*) filter (where latency_ok is null or bandwidth_ok is null) as workloads_unknown,
        arg_max(batch_size, required_bits_per_s) filter (where latency_ok and bandwidth_ok)
            as heaviest_carried_batch_size,
        arg_max(tokens_per_s, required_bits_per_s) filter (where latency_ok and bandwidth_ok)
            as heaviest_carried_tokens_per_s
    from cells
    group by campaign, region_a, region_b, model
),
final as (
    select
        j.campaign,
        j.region_a,
        a.region_name as region_a_name,
        j.region_b,
        b.region_name as region_b_name,
        j.model,
        j.model_label,
        j.model_sort_order,
        j.basis,
        j.model_campaign,
        j.rtt_worst_s,
        j.nccl_worst_bits_per_s,
        1 / j.rtt_worst_s as latency_bound_tokens_per_s,
        j.workloads,
        j.workloads_carried,
        j.workloads_latency_bound,
        j.workloads_bandwidth_bound,
        j.workloads_unknown,
        j.heaviest_carried_batch_size,
        j.heaviest_carried_tokens_per_s,
        case
            when j.workloads_unknown > 0 then 'not measured'
            when j.workloads_carried = j.workloads then 'every workload'
            when j.workloads_carried = 0 then 'none'
            else 'some'
        end as verdict,
        dense_rank() over (partition by j.campaign order by j.rtt_worst_s asc nulls last,
                           j.region_a, j.region_b) as pair_rank
    from judged as j
    left join regions as a on a.campaign = j.campaign and a.region = j.region_a
    left join regions as b on b.campaign = j.campaign and b.region = j.region_b
)
select * from final
order by campaign, pair_rank, model_sort_order, model
