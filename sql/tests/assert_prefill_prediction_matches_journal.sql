-- check: the prefill rate predicted on the measured link is within 2 % of the rate the journal logged
-- blocking: true
-- fix: check that the prefill task, its netdev window and the measured link named in the manifest belong together (params.prefill_task, the captures' link, the link's class)
-- The what-if rates for other links scale the measured decomposition (wire + residual); if the
-- model does not reproduce the measured link, every what-if row is off by the same error.
select w.campaign, w.link_class, w.predicted_tokens_per_s, j.prefill_tokens_per_s, j.journal_file
from fct_prefill_what_if as w
join int_deployment__journal_runs as j on j.campaign = w.campaign
where w.is_measured
  and (w.predicted_tokens_per_s is null
       or abs(w.predicted_tokens_per_s / j.prefill_tokens_per_s - 1) > 0.02)
