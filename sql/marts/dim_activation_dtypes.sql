-- grain: one row per activation data type that can cross a stage boundary
-- key: dtype
-- why: bytes per hidden-state value (fp16 2, int8 1) drive every bytes-per-token figure.
-- column label: the data type as the pages print it
-- column is_default: true for the type activations cross the wire in by default
-- column bytes_fraction_of_default: bytes per value over the default type's (1 for the default
--    itself)
with source as (
    select * from ref_activation_dtypes
),

final as (
    select
        dtype,
        label,
        bytes_per_value,
        is_default,
        bytes_per_value::double
            / (select max(bytes_per_value) filter (where is_default) from source)
            as bytes_fraction_of_default
    from source
)

select * from final
order by bytes_per_value desc, dtype
