-- grain: one row per deployment campaign
-- key: campaign, link_class
-- The measured anchor of the prefill model: one ubatch's time (ubatch / measured tok/s) split
-- into wire time on the measured link and the residual (compute + overhead).
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
