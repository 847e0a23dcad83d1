-- A project's gateway serving switch, set in the dashboard: off, every gateway key of the project answers
-- 401 invalid_api_key. A change takes a new revision, so replicas polling for key changes see it within key_poll_ms.
ALTER TABLE projects ADD COLUMN serving boolean NOT NULL DEFAULT true;
ALTER TABLE projects ADD COLUMN revision bigint NOT NULL DEFAULT nextval('change_revision');
CREATE INDEX projects_revision ON projects (revision);
