-- Lists are keyset pages, newest first: `order by created_at desc, <id> desc` after the previous
-- page's last (created_at, id). Each index below serves one list's pages as one range scan in
-- that order, so a page costs the same at ten rows or a million (no sort, no offset). A filtered
-- list has its filter column first. (Plain `create index`: migrations run in one transaction, so
-- `concurrently` is not available; on a large existing table this blocks writes while it builds.)
create index orgs_newest_first on orgs (created_at desc, id desc);
create index profiles_newest_first on profiles (created_at desc, id desc);
create index profiles_by_org_newest_first on profiles (org_id, created_at desc, id desc);
create index licenses_newest_first on licenses (created_at desc, id desc);
create index licenses_by_user_newest_first on licenses (user_id, created_at desc, id desc);
create index onboarding_runs_newest_first on onboarding_runs (created_at desc, workflow_id desc);
create index onboarding_runs_by_status_newest_first on onboarding_runs (status, created_at desc, workflow_id desc);
