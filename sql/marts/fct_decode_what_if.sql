-- grain: one row per deployment campaign and Ethernet link class
-- key: campaign, link_class
-- One decode step (an MTP or draft-model verify step, or one position without speculation)
-- sends verify_positions positions each way: network time per step is one round trip plus the
-- wire time of those bytes. RTT is the pooled ping average of the campaign's link of that
-- class; a class the campaign has a link of but whose ping is missing stays NULL (not
-- measured). Only a class the campaign has no link of is given an assumed RTT: the lowest
-- measured average RTT of the campaign's links (a faster PHY does not shorten the hosts'
-- stacks; the average, like every measured row, so rows compare like with like). Compute per
-- step is the measured step minus the measured link's network time.
-- column sort_order: the link class's order (slowest first)
-- column is_measured: true for the class of the link the campaign's prefill and decode ran on
-- column measured_step_s: the measured duration of one decode (verify) step
-- column measured_tokens_per_s: the measured decode rate (the same on every row of the campaign)
-- column step_wire_bytes: the bytes one decode step moves, both directions: verify positions x
--    (head -> worker + worker -> head bytes per position)
-- column rtt_s: the round-trip time the row uses: the ping average of the campaign's link of that
--    class, or the assumed one
-- column rtt_basis: measured (the class's link's ping average), assumed (no link of that class: the
--    lowest average RTT of the campaign's links) or not measured
-- column usable_bytes_per_s: the class's usable payload rate
-- column avg_wire_bits_per_s_head_to_worker: the average head -> worker wire rate over a measured
--    decode step
-- column avg_wire_bits_per_s_worker_to_head: the average worker -> head wire rate over a measured
--    decode step
-- column wire_s: the step's wire time at the class's usable rate
-- column net_s: network time per step: RTT + wire time
-- column share_of_step_fraction: network time over the measured step
-- column compute_s: the measured step minus the measured link's network time (the same on every
--    row)
-- column predicted_tokens_per_s: tokens per step / (compute + this class's network time)
-- column gain_vs_measured_fraction: the predicted rate over the measured class's, minus 1. Every
--    byte of a step is on the wire between two computes (a step waits for the one before), so a
--    faster class buys at most this when its RTT is the row's: the most it can buy, or the most
--    a slower class can cost
-- column parallel_slots: the server's parallel slots (-np) during the measured decode
-- column provenance: captured or reconstructed (the campaign's manifest)
with k as (
    select * from fct_deployment_constants
),
links as (
    select * from fct_deployment_links
),
measured as (
    select k.campaign, l.link_class, l.rtt_avg_s
    from k
    join links as l on l.campaign = k.campaign and l.link_id = k.prefill_link_id
),
fallback_rtt as (
    select campaign, min(rtt_avg_s) as rtt_s from links group by campaign
),
class_links as (
    -- the campaign's link of each class (the current one first when it has several)
    select campaign, link_class, rtt_avg_s, source_files
    from links
    where link_class is not null
    qualify row_number() over (partition by campaign, link_class
                               order by status = 'current' desc, link_id) = 1
),
per_class as (
    select
        k.campaign,
        c.link_class,
        c.label as link_label,
        c.sort_order,
        c.link_class = measured.link_class as is_measured,
        k.verify_positions,
        k.verify_step_s as measured_step_s,
        k.tokens_per_step,
        k.decode_tokens_per_s as measured_tokens_per_s,
        k.parallel_slots,
        k.provenance,
        k.verify_positions * (k.wire_bytes_per_position_head_to_worker
                              + k.wire_bytes_per_position_worker_to_head) as step_wire_bytes,
        case when l.link_class is null then fallback_rtt.rtt_s else l.rtt_avg_s end as rtt_s,
        case when l.link_class is null and fallback_rtt.rtt_s is not null then 'assumed'
             when l.link_class is null then 'not measured'
             when l.rtt_avg_s is null then 'not measured'
             else 'measured' end as rtt_basis,
        list_distinct(flatten([coalesce(k.source_files, []), coalesce(l.source_files, [])]))
            as source_files,
        c.usable_bytes_per_s,
        bytes_to_bits(k.verify_positions * k.wire_bytes_per_position_head_to_worker / k.verify_step_s)
            as avg_wire_bits_per_s_head_to_worker,
        bytes_to_bits(k.verify_positions * k.wire_bytes_per_position_worker_to_head / k.verify_step_s)
            as avg_wire_bits_per_s_worker_to_head
    from k
    join measured on measured.campaign = k.campaign
    join fallback_rtt on fallback_rtt.campaign = k.campaign
    cross join dim_link_classes as c
    left join class_links as l on l.campaign = k.campaign and l.link_class = c.link_class
),
with_net as (
    select
        *,
        step_wire_bytes / usable_bytes_per_s as wire_s,
        rtt_s + step_wire_bytes / usable_bytes_per_s as net_s
    from per_class
),
predicted as (
    select
        with_net.*,
        net_s / measured_step_s as share_of_step_fraction,
        measured_step_s - max(net_s) filter (where is_measured) over (partition by campaign)
            as compute_s,
        tokens_per_step / (measured_step_s - max(net_s) filter (where is_measured)
                           over (partition by campaign) + net_s) as predicted_tokens_per_s
    from with_net
),
final as (
    select
        *,
        predicted_tokens_per_s
            / max(predicted_tokens_per_s) filter (where is_measured) over (partition by campaign) - 1
            as gain_vs_measured_fraction
    from predicted
)
select * from final
order by campaign, sort_order
