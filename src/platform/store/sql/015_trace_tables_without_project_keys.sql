-- Traces, observations and scores lose their foreign keys to projects. Each row the keys checked took a KEY SHARE
-- lock on its project's row, so concurrent ingestion batches of one project shared that row's lock through a
-- MultiXact: 10-15 % of the insert time with 4 writers (docs/performance.md "Ingestion: where PostgreSQL spent its
-- time"). Project deletion deletes these rows itself (deleteProject), as it already did for traces and observations.
ALTER TABLE traces DROP CONSTRAINT traces_project_id_fkey;
ALTER TABLE observations DROP CONSTRAINT observations_project_id_fkey;
ALTER TABLE scores DROP CONSTRAINT scores_project_id_fkey;
