"""The Overview page's parts: a GPU's card (`card`), its verdict at a glance and its findings
(`glance`), and the device-index table (`index_table`). The page is `gpuscope.ui.overview_page`."""
