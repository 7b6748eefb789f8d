-- grain: one row per deployment campaign and Ethernet link class
-- key: campaign, link_class
-- The additive prefill model: a ubatch takes compute (the residual, measured once on the
-- link the prefill ran on) plus its wire time, bytes_per_ubatch / usable TCP rate. Swapping
-- only the wire time predicts prefill on the other classes. It puts every wire byte after the
-- compute, so its gain from a faster link is the most that link can buy: llama.cpp hides part
-- of a micro-batch's transfer behind compute (the lab series measure how much), and the gain
-- lies between 0 and this figure. The figures hold for the workload measured: the server's
-- parallel slots and the prompt's length and micro-batch (columns below). Burst duty is the share of a
-- ubatch the link is busy; average use is the busier direction's bytes over a whole ubatch.
-- column residual_s: the measured micro-batch time minus its wire time on the measured class (the
--    same on every row)
-- column wire_s: one micro-batch's wire time on this class: ubatch bytes / usable rate
-- column ubatch_total_s: one micro-batch's predicted time on this class: residual + wire time
-- column busier_direction_bytes: the bytes of one micro-batch in its busier direction
-- column predicted_tokens_per_s: ubatch positions / predicted micro-batch time
-- column burst_duty_fraction: the share of a micro-batch the link is busy: wire time / micro-batch
--    time
-- column avg_link_use_fraction: the busier direction's bytes over what the class could carry in the
--    micro-batch's time
-- column gain_vs_previous_class_fraction: the predicted rate over the next slower class's, minus 1
-- column previous_class_label: that next slower class
-- column gain_vs_measured_fraction: the predicted rate over the measured class's, minus 1: the
--    most a faster class can buy (every wire byte after the compute), or the most a slower one
--    can cost
-- column parallel_slots: the server's parallel slots (-np) during the measured prefill: the
--    figures hold for that many requests at a time
-- column prefill_tokens: the prompt positions the measured prefill evaluated
-- column provenance: captured or reconstructed (the campaign's manifest)
with k as (
    select * from fct_deployment_constants
),
measured_class as (
    select l.campaign, l.link_class
    from fct_deployment_links as l
    join k on k.campaign = l.campaign and k.prefill_link_id = l.link_id
),
anchor as (
    select
        k.campaign,
        measured_class.link_class as measured_link_class,
        k.ubatch_tokens / k.prefill_tokens_per_s as ubatch_s,
        k.ubatch_bytes / c.usable_bytes_per_s as measured_wire_s,
        k.ubatch_tokens / k.prefill_tokens_per_s - k.ubatch_bytes / c.usable_bytes_per_s as residual_s
    from k
    join measured_class on measured_class.campaign = k.campaign
    join dim_link_classes as c on c.link_class = measured_class.link_class
),
per_class as (
    select
        k.campaign,
        c.link_class,
        c.label as link_label,
        c.sort_order,
        c.line_rate_bits_per_s,
        c.usable_bytes_per_s,
        c.link_class = anchor.measured_link_class as is_measured,
        k.ubatch_tokens,
        k.parallel_slots,
        k.prefill_tokens,
        k.provenance,
        k.ubatch_bytes,
        k.prefill_tokens_per_s as measured_tokens_per_s,
        anchor.residual_s,
        k.ubatch_bytes / c.usable_bytes_per_s as wire_s,
        anchor.residual_s + k.ubatch_bytes / c.usable_bytes_per_s as ubatch_total_s,
        greatest(k.ubatch_bytes_head_to_worker, k.ubatch_bytes_worker_to_head) as busier_direction_bytes
    from k
    join anchor on anchor.campaign = k.campaign
    cross join dim_link_classes as c
),
final as (
    select
        *,
        ubatch_tokens / ubatch_total_s as predicted_tokens_per_s,
        wire_s / ubatch_total_s as burst_duty_fraction,
        busier_direction_bytes / (usable_bytes_per_s * ubatch_total_s) as avg_link_use_fraction,
        (ubatch_tokens / ubatch_total_s)
            / lag(ubatch_tokens / ubatch_total_s) over (partition by campaign order by sort_order) - 1
            as gain_vs_previous_class_fraction,
        lag(link_label) over (partition by campaign order by sort_order) as previous_class_label,
        (ubatch_tokens / ubatch_total_s)
            / max(ubatch_tokens / ubatch_total_s) filter (where is_measured) over (partition by campaign) - 1
            as gain_vs_measured_fraction
    from per_class
)
select * from final
order by campaign, sort_order
