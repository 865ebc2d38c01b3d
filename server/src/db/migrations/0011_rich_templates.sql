-- Issue 11: templates keep Meta's parameter format (POSITIONAL {{1}} or NAMED {{first_name}}),
-- which decides how parameters are sent, and its quality score when Meta reports one.
alter table templates add column if not exists parameter_format text not null default 'POSITIONAL';
alter table templates add column if not exists quality_score text;
