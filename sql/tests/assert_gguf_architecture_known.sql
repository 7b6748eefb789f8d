-- check: every deployment's model architecture is in ref_llama_cpp_architectures (its attention layout follows llama.cpp's rule for it)
-- An architecture missing there is read as dense (every block full attention): right for most
-- families, wrong for a sliding-window or hybrid one. Add it to the table with its rule.
select campaign, gguf_file, architecture
from int_deployment__model_shape
where not coalesce(architecture_known, false)
