-- grain: one row per model shape: each declared theory shape plus one measured row per campaign
-- key: model
-- scope: comparison
-- why: the measured deployment joins the theory tables side by side. Its shape (hidden size,
-- blocks) and its measured wire bytes per position come from the §0 mart fct_deployment_constants;
-- the busier direction bounds what one boundary needs from a full-duplex link.
-- column model: the shape's key: a reference shape's id from model_shapes.csv, or the campaign id
--    of a deployed model
-- column label: the model as the pages print it; a deployed model reads "(deployed)", with its
--    campaign when two deployments run the same model
-- column example_model: a model of that shape (reference) or the deployed model's GGUF name
-- column basis: formula for a reference shape, measured for a deployed model (its PP bytes are
--    measured wire bytes)
-- column wire_bytes_per_position: the busier direction's measured wire bytes per position (what one
--    boundary needs from a full-duplex link)
-- column wire_to_raw_ratio: the busier direction's wire bytes per position over the raw activation
--    vector
-- column sort_order: reference shapes first, then deployed models by campaign
with theory as (
    select * from ref_model_shapes
),

measured as (
    select * from fct_deployment_constants
),

default_dtype as (
    select bytes_per_value from ref_activation_dtypes where is_default
),

theory_rows as (
    select
        model,
        label,
        hidden_size,
        num_layers,
        example_model,
        'formula' as basis,
        null::double as wire_bytes_per_position_head_to_worker,
        null::double as wire_bytes_per_position_worker_to_head,
        null::varchar as campaign,
        null::varchar[] as source_files,
        null::varchar[] as shape_source_files,
        sort_order
    from theory
),

measured_rows as (
    select
        campaign as model,
        -- two deployments of the same model are told apart by their campaign; "deployed",
        -- not "measured": the model's TP rows are formula on its shape (the basis column says
        -- which rows are measured)
        coalesce(model_name, campaign) || case
            when count(*) over (partition by coalesce(model_name, campaign)) > 1
            then ' (deployed, ' || campaign || ')' else ' (deployed)' end as label,
        hidden_size,
        -- decoder blocks: MTP (nextn) layers do not take part in each token's forward pass
        decoder_blocks as num_layers,
        coalesce(model_name, campaign) as example_model,
        'measured' as basis,
        wire_bytes_per_position_head_to_worker::double as wire_bytes_per_position_head_to_worker,
        wire_bytes_per_position_worker_to_head::double as wire_bytes_per_position_worker_to_head,
        campaign,
        source_files,
        shape_source_files,
        (select coalesce(max(sort_order), 0) from theory)
            + row_number() over (order by campaign) as sort_order
    from measured
    -- a deployment without a model or without a measured prefill has nothing to compare
    where hidden_size is not null and wire_bytes_per_position_head_to_worker is not null
),

unioned as (
    select * from theory_rows
    union all
    select * from measured_rows
),

final as (
    select
        unioned.model,
        unioned.label,
        unioned.hidden_size,
        unioned.num_layers,
        unioned.example_model,
        unioned.basis,
        unioned.campaign,
        unioned.source_files,
        unioned.shape_source_files,
        unioned.hidden_size * default_dtype.bytes_per_value as raw_hidden_bytes_per_position,
        unioned.wire_bytes_per_position_head_to_worker,
        unioned.wire_bytes_per_position_worker_to_head,
        greatest(unioned.wire_bytes_per_position_head_to_worker,
                 unioned.wire_bytes_per_position_worker_to_head) as wire_bytes_per_position,
        greatest(unioned.wire_bytes_per_position_head_to_worker,
                 unioned.wire_bytes_per_position_worker_to_head)
            / (unioned.hidden_size * default_dtype.bytes_per_value) as wire_to_raw_ratio,
        unioned.sort_order
    from unioned
    cross join default_dtype
)

select * from final
order by sort_order
