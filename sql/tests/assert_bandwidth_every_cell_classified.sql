-- check: every requirement cell has exactly one feasibility class on every link class
select r.model, r.scheme, r.batch_size, r.tokens_per_s, l.link_class, count(f.model) as n
from fct_bandwidth_requirements as r
cross join dim_link_classes as l
left join fct_link_feasibility as f
    on f.model = r.model and f.scheme = r.scheme and f.batch_size = r.batch_size
    and f.tokens_per_s = r.tokens_per_s and f.link_class = l.link_class
group by all
having count(f.model) <> 1
