-- grain: one row per deployment campaign
-- key: campaign, link_class
-- The measured anchor of the prefill model: one ubatch's time (ubatch / measured tok/s) split
-- into wire time on the measured link and the residual (compute + overhead).
-- column link_class: the class of the link the prefill ran on
-- column usable_bytes_per_s: that class's usable payload rate
-- column wire_s: one micro-batch's wire time on that class: ubatch bytes / usable rate
-- column residual_s: the rest of the micro-batch's measured time (compute and overhead): ubatch /
--    measured tok/s - wire time
-- column ubatch_total_s: the micro-batch's measured time: ubatch positions / measured tok/s
-- column s_per_token: the micro-batch's time per position
-- column predicted_tokens_per_s: the model's rate on the measured class (equals the measured rate
--    by construction)
with w as (
    select * from fct_prefill_what_if where is_measured
),
final as (
    select
        campaign,
        link_class,
        link_label,
        ubatch_tokens,
        ubatch_bytes,
        usable_bytes_per_s,
        wire_s,
        residual_s,
        ubatch_total_s,
        ubatch_total_s / ubatch_tokens as s_per_token,
        measured_tokens_per_s,
        predicted_tokens_per_s
    from w
)
select * from final
order by campaign
