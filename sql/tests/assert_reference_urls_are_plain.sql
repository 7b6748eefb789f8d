-- check: reference URLs are plain http(s) URLs with no whitespace or markup characters
-- They are rendered as raw autolinks, so anything else could inject markup.
select reference_key, url
from dim_references
where not regexp_full_match(url, '^https?://[A-Za-z0-9._~:/?#@!$&''()*+,;=%-]+$')
