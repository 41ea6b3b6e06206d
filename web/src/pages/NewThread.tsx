/** New thread (issue 18): not built yet. */
export const NewThreadPage = ({ projectId }: { readonly projectId: string }) => (
  <section aria-labelledby="page-title" data-project={projectId}>
    <h1 id="page-title">New thread</h1>
  </section>
)
