-- Unit conversions, and the one rule for a link's line rate, written once (the tables keep base
-- units; see DESIGN §3): every model and check sees these as functions (temporary macros of the
-- build's connection, pipeline/warehouse/models.py load_macros). A factor lives here and
-- nowhere else in sql/.
create or replace temp macro bytes_to_bits(x) as x * 8;
create or replace temp macro bits_to_bytes(x) as x / 8;
create or replace temp macro kib_to_bytes(x) as x * 1024;
create or replace temp macro ms_to_s(x) as x / 1000;
create or replace temp macro us_to_s(x) as x / 1e6;
create or replace temp macro mbit_to_bits(x) as x * 1000000;
create or replace temp macro gbit_to_bits(x) as x * 1e9;
create or replace temp macro bits_to_mbit(x) as x / 1e6;
-- A link's line rate: the rate a tc qdisc shaped it to, else its negotiated speed, unless the
-- manifest marks that speed nominal (a veth pair prints a fixed 10 Gbit/s): then it has none;
-- and what that rate is, as the pages say it.
create or replace temp macro line_rate(shaped_bits_per_s, nominal_speed, negotiated_bits_per_s) as
    coalesce(shaped_bits_per_s,
             case when not coalesce(nominal_speed, false) then negotiated_bits_per_s end);
create or replace temp macro line_rate_basis(shaped_bits_per_s, nominal_speed, negotiated_bits_per_s) as
    case when shaped_bits_per_s is not null then 'shaped rate'
         when coalesce(nominal_speed, false) then 'no line rate (nominal speed)'
         when negotiated_bits_per_s is not null then 'negotiated speed'
    end;
-- The micro-batch pipeline of a prefill split between a head and a worker: n micro-batches pass
-- three stages, the head's compute (its share of the compute c of one micro-batch), the wire (w,
-- one micro-batch's bytes / rate) and the worker's compute (its share). The first micro-batch
-- passes every stage and each further one adds the slowest. A compute stage also carries the
-- share phi of its micro-batch's wire time that it cannot hide (the sender's thread putting the
-- tensor on the socket), and the wire stage the share psi of a compute stage's time that it
-- waits (the RPC calls that answer only once the other host has computed):
-- T = c + w + (n - 1) max(s c + phi w, w + psi s c), s the larger of the two compute shares.
-- phi = psi = 0 is full overlap.
create or replace temp macro pipeline_prefill_s(c, w, n, s, phi, psi) as
    c + w + (n - 1) * greatest(s * c + phi * w, w + psi * s * c);
-- Its inverse: c from one measured prefill T at wire time w per micro-batch. T is the larger of
-- two lines in c, so c is the smaller of their two inverses.
create or replace temp macro pipeline_compute_s(t, w, n, s, phi, psi) as
    least((t - w - (n - 1) * phi * w) / (1 + (n - 1) * s),
          (t - n * w) / (1 + (n - 1) * psi * s));
-- A tbf shaper is a token bucket: idle for idle_s, it gathers tokens at its rate up to its
-- bucket, and that many of the next bytes leave at once, costing no wire time.
create or replace temp macro token_bucket_free_bytes(bucket_bytes, rate_bits_per_s, idle_s) as
    least(bucket_bytes, bits_to_bytes(rate_bits_per_s) * greatest(idle_s, 0));
-- A split-conformal range's half-width: the ceil(q (n + 1))-th smallest of the n absolute
-- errors (the rank a hair under q (n + 1), so that 0.9 x 10 is 9, not 10); empty when that rank
-- exceeds n (fewer than q / (1 - q) errors). The measured value lies inside when it is within
-- predicted x (1 +/- h), a hair of float rounding allowed.
create or replace temp macro conformal_half_width(abs_errors, q) as
    case when ceil(q * (len(abs_errors) + 1) - 1e-9) <= len(abs_errors)
         then list_sort(abs_errors)[ceil(q * (len(abs_errors) + 1) - 1e-9)::bigint] end;
create or replace temp macro within_range(measured, predicted, h) as
    measured between predicted * (1 - h) * (1 - 1e-9) and predicted * (1 + h) * (1 + 1e-9);
-- Leave one series out, per row of a query over every campaign's rows: the half-width from the
-- absolute errors of the other campaigns' rows only (a window over the whole result).
create or replace temp macro left_out_range(campaign, error_fraction, q) as
    conformal_half_width(list_transform(
        list_filter(list({'campaign': campaign, 'abs_error': abs(error_fraction)})
                        filter (where error_fraction is not null) over (),
                    lambda p: p.campaign <> campaign),
        lambda p: p.abs_error), q);
