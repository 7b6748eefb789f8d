-- grain: one row per published lab series whose corrected prefill fit has a knee and a range and can be set against bytes it counted
-- key: campaign
-- scope: comparison
-- How much of a prefill's wire time llama.cpp's pipeline hides, as the lab series measured it:
-- the corrected model's S (bytes that still cost wire time above the knee rate) and S + K
-- (below it) over the bytes the series' netdev counted for a prompt (fct_lab_series_fit). The
-- pages that quote the additive what-if (which puts every byte after the compute) quote this
-- beside it: the lab's own conditions (its prompt, micro-batch, model and cores) hold here,
-- not a deployment's.
-- column series: the lab series (manifest params.lab_series)
-- column slope_share_of_wire: S / counted bytes: the share of the prompt's wire bytes that still
--    cost time above the knee
-- column slow_side_share_of_wire: (S + K) / counted bytes, below the knee (near 1: every byte)
-- column knee_bits_per_s: the TCP rate between the two regimes
-- column prompt_tokens: the series' prompt length (params.lab_drive)
-- column ubatch_tokens: the series' micro-batch (params.lab_drive)
-- column meets_targets: whether the corrected prefill model met the publishing targets on this
--    series (fct_lab_series_fit)
with fit as (
    select * from fct_lab_series_fit
    where quantity = 'prefill' and model = 'corrected' and measured_wire_bytes is not null
      -- a fit with a knee and a range: enough calibration rates to place the knee and to
      -- leave one out (a three-rate series fits a straight line and says nothing of overlap)
      and knee_bits_per_s is not null and range_fraction is not null
),
campaigns as (
    select campaign, prompt_tokens, ubatch_tokens from fct_lab_series_campaigns
),
final as (
    select f.campaign, f.series, f.slope_share_of_wire, f.slow_side_share_of_wire,
           f.knee_bits_per_s, c.prompt_tokens, c.ubatch_tokens, f.meets_targets
    from fit as f
    join campaigns as c using (campaign)
)
select * from final
order by campaign
