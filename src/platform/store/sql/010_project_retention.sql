-- Data retention per project (Langfuse's `retention`, days): traces older than it are deleted with their
-- observations and scores by each process's retention sweep. 0 keeps data forever.
ALTER TABLE projects ADD COLUMN retention_days integer NOT NULL DEFAULT 0 CHECK (retention_days = 0 OR retention_days >= 3);
