/** Waiting on you (issue 18): not built yet. */
export const WaitingPage = ({ projectId }: { readonly projectId: string }) => (
  <section aria-labelledby="page-title" data-project={projectId}>
    <h1 id="page-title">Waiting on you</h1>
  </section>
)
