-- grain: one row (the declared parallelism parameters, pivoted to typed columns)
-- key:
-- why: the default number of pipeline stages, all-reduces per TP layer and the illustrative
-- per-token compute time have one home (ref_parallelism_params); every model reads them here.
-- column pp_stages: the default number of pipeline stages (parallelism_params.csv)
-- column pp_boundaries: the stage boundaries a token crosses at that stage count (stages - 1)
-- column tp_allreduces_per_layer: the all-reduces of the hidden state one tensor-parallel layer does per
--    token (parallelism_params.csv: 1 by convention; Megatron-style TP does 2, so TP is a lower bound)
-- column token_compute_s: the illustrative compute time of one token step (parallelism_params.csv)
with source as (
    select * from ref_parallelism_params
),

final as (
    select
        max(value) filter (where parameter = 'pp_stages')::integer as pp_stages,
        max(value) filter (where parameter = 'pp_stages')::integer - 1 as pp_boundaries,
        max(value) filter (where parameter = 'tp_allreduces_per_layer')::integer
            as tp_allreduces_per_layer,
        max(value) filter (where parameter = 'token_compute_s')::double as token_compute_s
    from source
)

select * from final
