/** Machines (issue 18): not built yet. */
export const MachinesPage = ({ projectId }: { readonly projectId: string }) => (
  <section aria-labelledby="page-title" data-project={projectId}>
    <h1 id="page-title">Machines</h1>
  </section>
)
