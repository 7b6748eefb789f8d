-- check: exactly one activation data type is the default
-- blocking: true
-- fix: mark exactly one row of raw_data/reference/activation_dtypes.csv as the default (is_default = true)
-- Every bytes-per-token figure is a fraction of the default type's bytes (dim_activation_dtypes):
-- with none or two, the fraction is NULL or taken against the wrong type.
select count(*) filter (where is_default) as default_types
from ref_activation_dtypes
having count(*) filter (where is_default) <> 1
