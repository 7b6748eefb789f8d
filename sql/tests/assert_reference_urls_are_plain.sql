-- reference URLs are rendered as raw autolinks, so they must be plain http(s) URLs with no
-- whitespace or markup characters
select reference_key, url
from dim_references
where not regexp_full_match(url, '^https?://[A-Za-z0-9._~:/?#@!$&''()*+,;=%-]+$')
