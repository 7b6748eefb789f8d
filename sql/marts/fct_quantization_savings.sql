-- grain: one row per model x scheme x activation dtype (formula rows, default stages, reference batch)
-- key: model, scheme, dtype
-- scope: comparison
-- why: §5.5: quantizing the hidden state to fewer bytes per value scales every transfer by
-- bytes_per_value / default bytes_per_value (int8 over fp16 halves it). Measured rows are left
-- out: the measured wire bytes were taken at one dtype only.
-- column dtype_label: the data type as the pages print it
-- column bytes_per_transfer: one transfer's bytes in this data type (formula)
-- column bytes_per_token: a token step's bytes in this data type (formula)
-- column fraction_of_default: bytes in this type over bytes in the default type
-- column saving_fraction: 1 - fraction_of_default: what the type saves
with bytes as (
    select * from fct_bytes_per_token
    where basis = 'formula' and is_default_stages and is_reference_batch
),

defaults as (
    select model, scheme, bytes_per_transfer as default_bytes_per_transfer
    from bytes
    where is_default_dtype
),

dtypes as (
    select * from dim_activation_dtypes
),

final as (
    select
        bytes.model,
        bytes.model_label,
        bytes.model_sort_order,
        bytes.scheme,
        bytes.scheme_label,
        bytes.dtype,
        dtypes.label as dtype_label,
        dtypes.bytes_per_value,
        bytes.is_default_dtype,
        bytes.batch_size,
        bytes.campaign,
        bytes.source_files,
        bytes.bytes_per_transfer,
        bytes.bytes_per_token,
        bytes.bytes_per_transfer / defaults.default_bytes_per_transfer as fraction_of_default,
        1 - bytes.bytes_per_transfer / defaults.default_bytes_per_transfer as saving_fraction
    from bytes
    inner join defaults on defaults.model = bytes.model and defaults.scheme = bytes.scheme
    inner join dtypes on dtypes.dtype = bytes.dtype
)

select * from final
order by model_sort_order, scheme, bytes_per_value desc
