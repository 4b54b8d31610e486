-- Orgs, profiles and licenses are created directly or by the onboarding workflow; a run record
-- ties one workflow to the three rows it created, in the same transaction.
create table orgs (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

-- org_id carries no foreign key: direct creates do not require the org to exist (design §3.3).
create table profiles (
  id uuid primary key,
  full_name text not null,
  org_id uuid not null,
  created_at timestamptz not null default now()
);

create table licenses (
  id uuid primary key,
  user_id uuid not null,
  start_at timestamptz not null,
  end_at timestamptz not null,
  created_at timestamptz not null default now(),
  constraint licenses_period_check check (end_at > start_at)
);

-- The run row is written first (it claims the workflow id, so concurrent duplicates wait on it),
-- hence the deferred foreign keys: they are checked at commit, when all three rows exist.
create table onboarding_runs (
  workflow_id uuid primary key,
  org_id uuid not null references orgs (id) deferrable initially deferred,
  profile_id uuid not null references profiles (id) deferrable initially deferred,
  license_id uuid not null references licenses (id) deferrable initially deferred,
  request_fingerprint text not null,
  status text not null check (status in ('completed')),
  created_at timestamptz not null default now()
);
