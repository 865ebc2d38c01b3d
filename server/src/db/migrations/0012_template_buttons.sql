-- Issue 11: the quick-reply buttons (Meta's index in BUTTONS) the operator marked «Baja»; a
-- reply carrying one of them puts the number on the blacklist.
alter table templates add column if not exists opt_out_buttons jsonb not null default '[]'::jsonb;
